// The Rules tab: the sandbox's ordered mock rules, edited, validated by the API, previewed and saved.
import { useSandboxContext } from '../sandboxContext.ts';

export function RulesEditor() {
  const context = useSandboxContext();
  if (!context) return null;
  return <p>{context.sandbox.mocks.length} rules</p>;
}

// The sandbox of the page in view, shared with every pane of the sandbox page (including the Mail and Requests panes).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Sandbox } from '../api.ts';

export interface SandboxContextValue {
  sandbox: Sandbox;
  /** Replaces the page's copy after a write that returned the new sandbox. */
  setSandbox: (sandbox: Sandbox) => void;
  /** Fetches the sandbox again. */
  reload: () => Promise<void>;
}

export const SandboxContext = createContext<SandboxContextValue | null>(null);

export function useSandboxContext(): SandboxContextValue | null {
  return useContext(SandboxContext);
}

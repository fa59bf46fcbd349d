// Rule choice with conditions (issue 40): a rule with `times` answers only while it has uses left, and a rule
// in a scenario only while the request's correlation key is in its `requiredState`; one that does not take
// the request lets the rules after it try. Taking a rule (a use, a state move) is a compare-and-set in the
// store: a request that loses the race chooses again, so two concurrent requests never both move one state.
import { chooseRuleWithin, type CompiledRule, type RuleChoice, type RuleMatch } from './match.ts';
import type { StoredMockRule } from './types.ts';

export interface ConditionStore {
  state(scenario: string, key: string): Promise<string>;
  /**
   * Takes the rule for this request: moves the state from requiredState to newState and takes one use, all or
   * nothing. `moved` when the state changed since it was read, `exhausted` when the uses ran out.
   */
  take(rule: StoredMockRule, key: string): Promise<'taken' | 'moved' | 'exhausted'>;
}

/** A request that keeps losing races this often gets the rules without conditions' say (the fallback). */
const MAX_RACES = 20;

export function hasConditions(rule: StoredMockRule): boolean {
  return rule.times !== undefined || rule.scenario !== undefined;
}

/**
 * The correlation key of `rule` for a request, '' for the whole sandbox; undefined when the request does not
 * carry it (then the rule does not match). `lookup` reads `header.x`, `query.x` and `body.a.b` from the request.
 */
export async function stateKeyOf(
  rule: StoredMockRule,
  params: Record<string, string>,
  lookup: (source: 'header' | 'query' | 'body', name: string) => Promise<string | undefined>,
): Promise<string | undefined> {
  if (rule.stateKey === undefined) return '';
  const dot = rule.stateKey.indexOf('.');
  const source = rule.stateKey.slice(0, dot);
  const name = rule.stateKey.slice(dot + 1);
  if (source === 'path') return Object.hasOwn(params, name) ? params[name] : undefined;
  return lookup(source as 'header' | 'query' | 'body', name);
}

export async function chooseWithConditions(
  rules: CompiledRule[],
  method: string,
  path: string,
  keyOf: (rule: StoredMockRule, params: Record<string, string>) => Promise<string | undefined>,
  store: ConditionStore,
): Promise<RuleChoice> {
  for (let race = 0; race < MAX_RACES; race++) {
    let from = 0;
    // Each pass ends by answering, or by losing a race (then the rules are tried again from the top).
    for (;;) {
      const choice = chooseRuleWithin(rules, method, path, { from });
      const match: RuleMatch | null = choice.match;
      if (match === null) return choice;
      const rule = match.rule.rule;
      if (!hasConditions(rule)) return choice;
      from = rules.indexOf(match.rule) + 1;
      const key = await keyOf(rule, match.params);
      if (key === undefined) continue;
      const scenario = rule.scenario;
      if (scenario !== undefined && rule.requiredState !== undefined) {
        if ((await store.state(scenario, key)) !== rule.requiredState) continue;
      }
      if (rule.times === undefined && rule.newState === undefined) return choice;
      const taken = await store.take(rule, key);
      if (taken === 'taken') return choice;
      if (taken === 'moved') break;
    }
  }
  return { match: null, budgetExhausted: false, pathTooLongForRegex: false };
}

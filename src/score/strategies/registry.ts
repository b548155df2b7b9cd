/**
 * The strategy registry: name → definition. A built-in strategy is one file in this folder and
 * one line below; code outside the package adds its own with `registerStrategy()` (the config
 * schema then accepts its name).
 */
import type { StrategyDefinition } from '../strategy.js';
import { bestFirst } from './best-first.js';
import { bfs } from './bfs.js';
import { classic } from './classic.js';
import { combined } from './combined.js';
import { ipagerank } from './ipagerank.js';
import { semantic } from './semantic.js';
import { time } from './time.js';
import { topology } from './topology.js';

const registry = new Map<string, StrategyDefinition>();

/** Add (or replace) a strategy under its name. */
export function registerStrategy(def: StrategyDefinition): void {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) throw new Error(`strategy name must be lower-case letters, digits and dashes: "${def.name}"`);
  registry.set(def.name, def);
}

for (const def of [bfs, bestFirst, topology, semantic, time, ipagerank, classic, combined]) registerStrategy(def);

/** Built-in strategy names, in the order docs/strategies.md and `--help` list them. */
export const BUILTIN_STRATEGIES = ['bfs', 'best-first', 'topology', 'semantic', 'time', 'ipagerank', 'classic', 'combined'] as const;
/** The name of a built-in strategy. */
export type BuiltinStrategyName = (typeof BUILTIN_STRATEGIES)[number];
/** A registered strategy's name (the built-in ones, or one added with `registerStrategy`). */
export type StrategyName = BuiltinStrategyName | (string & {});

/** The names of every registered strategy, built-in and registered by `registerStrategy`. */
export function strategyNames(): string[] {
  return [...registry.keys()];
}

/** A registered strategy by name (undefined when none has it). */
export function getStrategy(name: string): StrategyDefinition | undefined {
  return registry.get(name);
}

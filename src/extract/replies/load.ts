/** User reply templates from a JSON or YAML file, validated so mistakes read as plain messages. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { ReplyMatcher } from './types.js';

const regexSource = z.string().min(1).refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'is not a valid regular expression');

export const replyMatcherSchema = z.object({
  name: z.string().min(1),
  url: regexSource,
  threadId: regexSource.optional(),
  post: z.string().min(1),
  author: z.string().min(1),
  time: z.string().min(1),
  text: z.string().min(1),
  floor: z.string().optional(),
  pages: z.string().optional(),
  total: z.string().optional(),
  totalPattern: regexSource.optional(),
  minPosts: z.number().int().min(1).optional(),
});

const listSchema = z.array(replyMatcherSchema);
const wrappedSchema = z.object({ matchers: listSchema });

export class MatcherFileError extends Error {}

/** Parse matcher definitions from file text (YAML is a superset of JSON, so one parser serves both). */
export function parseMatchers(text: string, source = 'matcher file'): ReplyMatcher[] {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (e) {
    throw new MatcherFileError(`${source}: not valid JSON/YAML (${(e as Error).message.split('\n')[0]})`);
  }
  // A bare list, or {matchers: [...]}; parsed separately so errors name the failing field.
  const r = Array.isArray(data) ? listSchema.safeParse(data) : wrappedSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new MatcherFileError(`${source}: invalid reply matcher${where}: ${issue.message}`);
  }
  return Array.isArray(r.data) ? r.data : (r.data as { matchers: ReplyMatcher[] }).matchers;
}

export function loadMatchers(path: string): ReplyMatcher[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new MatcherFileError(`cannot read matcher file ${path}`);
  }
  return parseMatchers(text, path);
}

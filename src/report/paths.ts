/**
 * Paths as the user gave them: with `--storage /abs/dir` the summary prints absolute paths;
 * with a relative storage folder (the default `storage`), paths relative to the working folder.
 */
import { isAbsolute, relative } from 'node:path';

export function displayPath(path: string, storageAsGiven: string): string {
  if (isAbsolute(storageAsGiven)) return path;
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

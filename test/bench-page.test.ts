import { describe, expect, it } from 'vitest';
import { withSection } from '../bench/bench-page.js';

describe('benchmark page sections', () => {
  it('replaces only the named section and appends a new one at the end', () => {
    const a = { name: 'a', title: 'A', command: 'npm run a', body: 'one' };
    const b = { name: 'b', title: 'B', command: 'npm run b', body: 'two' };
    let page = withSection(withSection('# Benchmarks\n', a), b);
    page = withSection(page, { ...a, body: 'three' });
    expect(page).toContain('three');
    expect(page).not.toContain('one');
    expect(page).toContain('two');
    expect(page.indexOf('## A')).toBeLessThan(page.indexOf('## B'));
    expect(page.match(/<!-- bench:a -->/g)).toHaveLength(1);
  });
});

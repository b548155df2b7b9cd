/**
 * Why a request had no answer, in the words the summary tallies: a host that does not resolve is
 * not a robots.txt rule, and a user whose seeds are misspelt must read that, not "robots.txt".
 */
export function unreachableReason(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; name?: string } } | undefined;
  const code = e?.cause?.code ?? e?.code;
  // The fetch gate resolves names itself (src/fetch/gate.ts) and refuses one that does not resolve.
  if (code === 'refused') return /^dns:/.test(e?.message ?? '') ? 'host not found (DNS)' : 'refused by the fetch gate';
  if (code === 'timeout') return 'host timed out';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'host not found (DNS)';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'host timed out';
  return 'host unreachable';
}

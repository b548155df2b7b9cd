/**
 * The crawl's HTML report (src/report/write.ts) and `--export` files, written when a crawl ends.
 */
import type { CrawlContext, CrawlPlugin, CrawlResult } from '../crawl/types.js';
import type { ExportFormat } from '../report/export.js';
import { displayPath } from '../report/paths.js';
import { writeCrawlReport, writeRunExports } from '../report/write.js';

/**
 * Writes the report (and `--export` files) after every crawl. Run it after the other plugins'
 * afterRun: it reads the files they close there (the thread store).
 */
export class ReportPlugin implements CrawlPlugin {
  readonly name = 'report';
  private written: string[] = [];
  private exported: string[] = [];
  private shown = (p: string) => p;

  constructor(private readonly exportFormats: ExportFormat[] = []) {}

  async afterRun(result: CrawlResult, ctx: CrawlContext): Promise<void> {
    this.shown = (p) => displayPath(p, ctx.config.storageDir);
    try {
      this.written = writeCrawlReport(result, ctx.storageDir);
      if (this.exportFormats.length) this.exported = writeRunExports(ctx.storageDir, result.runId, this.exportFormats);
    } catch (e) {
      ctx.progress.log(`report not written: ${(e as Error).message}`);
    }
  }

  summary(): string[] {
    const lines = this.exported.map((f) => `  export            ${this.shown(f)}`);
    if (!this.written.length) return lines;
    return [`  report            ${this.shown(this.written[0])} (open it in a browser; no server needed)`, ...lines];
  }
}

export function reportPlugin(exportFormats: ExportFormat[] = []): ReportPlugin {
  return new ReportPlugin(exportFormats);
}

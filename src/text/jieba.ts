/**
 * jieba-wasm's segmentation, minus the cost of handing each word back as a decoded string.
 *
 * Why this exists: jieba-wasm's glue turns every word into a JS string with one `TextDecoder`
 * call inside the WASM call (`__wbindgen_string_new`); on a 5,000-character page that is 2,700
 * decoder calls and a third of the segmenter's time. jieba-rs returns words as slices of the
 * input, so the string callback only needs to say *where* a word is: this module instantiates
 * the package's own `.wasm` a second way, with a `__wbindgen_string_new` that returns the
 * slice's position, and cuts the words out of the JS string we passed in (`String#slice`).
 * Same WASM, same dictionary, same words; only the marshalling differs.
 *
 * It leans on wasm-bindgen's calling convention of the pinned jieba-wasm version, so it checks
 * itself at load (the module's imports must be ones it knows; a probe text must come back
 * whole) and otherwise falls back to the package's own functions, saying so once; the tests
 * compare it word for word with the package on real pages. `JIEBA_BINDING=package` forces the
 * package's functions (for comparison).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { timed } from '../util/stage-profile.js';

interface JiebaFunctions {
  cut(text: string, hmm?: boolean): string[];
  cut_for_search(text: string, hmm?: boolean): string[];
}

interface BindgenExports {
  memory: WebAssembly.Memory;
  cut(ptr: number, len: number, hmm: number): [number, number];
  cut_for_search(ptr: number, len: number, hmm: number): [number, number];
  __wbindgen_malloc(size: number, align: number): number;
  __wbindgen_realloc(ptr: number, oldSize: number, newSize: number, align: number): number;
  __wbindgen_free(ptr: number, size: number, align: number): void;
  __wbindgen_export_2: WebAssembly.Table;
  __externref_drop_slice(ptr: number, len: number): void;
  __wbindgen_start(): void;
}

const require = createRequire(import.meta.url);
const PACKAGE_MAIN = require.resolve('jieba-wasm');

/** Which implementation is in use ('slices' = this module's, 'package' = jieba-wasm's glue). */
export let jiebaBinding: 'slices' | 'package' = 'package';
/** Why the fast binding is not in use, when it is not. */
export let jiebaFallbackReason: string | undefined;

let packageFunctions: JiebaFunctions | undefined;
/** The package's own functions (instantiated on first use only: its WASM loads the dictionary). */
export function packageJieba(): JiebaFunctions {
  return (packageFunctions ??= require('jieba-wasm') as JiebaFunctions);
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/; // any surrogate: a valid pair would have made the text non-uniform anyway

/** Pack a word's position (UTF-16 start, length) into one number the WASM side carries as an externref. */
const LEN_RANGE = 0x10000;

function sliceBinding(): JiebaFunctions {
  const bytes = readFileSync(join(dirname(PACKAGE_MAIN), 'jieba_rs_wasm_bg.wasm'));
  const module = new WebAssembly.Module(bytes);
  let wasm!: BindgenExports;
  let u8 = new Uint8Array(0);
  const memory = () => (u8.buffer === wasm.memory.buffer ? u8 : (u8 = new Uint8Array(wasm.memory.buffer)));
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });
  const encoder = new TextEncoder();
  const decode = (ptr: number, len: number) => decoder.decode(memory().subarray(ptr >>> 0, (ptr >>> 0) + len));

  // The input being segmented: words inside it come back as positions, anything else as strings.
  let inputPtr = 0;
  let inputBytes = 0;
  let uniform = false; // every character is 3 UTF-8 bytes and 1 UTF-16 unit, so byte offset / 3 = index

  const known: Record<string, (...args: never[]) => unknown> = {
    __wbindgen_string_new: (ptr: number, len: number) => {
      const off = (ptr >>> 0) - inputPtr;
      if (uniform && off >= 0 && off + len <= inputBytes && off % 3 === 0 && len % 3 === 0 && len < 3 * LEN_RANGE) return (off / 3) * LEN_RANGE + len / 3;
      return decode(ptr, len);
    },
    __wbindgen_number_new: (n: number) => n,
    __wbindgen_bigint_from_u64: (n: bigint) => BigInt.asUintN(64, n),
    __wbindgen_throw: (ptr: number, len: number) => {
      throw new Error(decode(ptr, len));
    },
    __wbindgen_debug_string: () => {
      throw new Error('jieba-wasm: debug_string is not supported by the slice binding');
    },
    __wbindgen_init_externref_table: () => {
      // As wasm-bindgen's glue: reserve the slots for undefined, null, true, false.
      const table = wasm.__wbindgen_export_2;
      const offset = table.grow(4);
      table.set(0, undefined);
      table.set(offset + 0, undefined);
      table.set(offset + 1, null);
      table.set(offset + 2, true);
      table.set(offset + 3, false);
    },
  };
  const byPrefix: [string, (...args: never[]) => unknown][] = [
    ['__wbg_Error_', (ptr: number, len: number) => new Error(decode(ptr, len))],
    ['__wbg_new_', () => ({})],
    ['__wbg_set_', (o: Record<string, unknown>, k: string, v: unknown) => void (o[k] = v)],
  ];
  const imports: Record<string, Record<string, unknown>> = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    const fn = known[imp.name] ?? byPrefix.find(([p]) => imp.name.startsWith(p))?.[1];
    if (imp.kind !== 'function' || !fn) throw new Error(`unknown import ${imp.module}.${imp.name}`);
    (imports[imp.module] ??= {})[imp.name] = fn;
  }
  wasm = new WebAssembly.Instance(module, imports as WebAssembly.Imports).exports as unknown as BindgenExports;
  wasm.__wbindgen_start();

  const run = (entry: 'cut' | 'cut_for_search', text: string, hmm: boolean): string[] => {
    // Worst case 3 bytes per UTF-16 unit, then shrunk to what was written, as wasm-bindgen's glue
    // does: the Rust side takes the buffer as a String of exactly that size and frees it.
    const cap = text.length * 3;
    let ptr = wasm.__wbindgen_malloc(cap, 1) >>> 0;
    const { written } = encoder.encodeInto(text, memory().subarray(ptr, ptr + cap));
    if (written !== cap) ptr = wasm.__wbindgen_realloc(ptr, cap, written, 1) >>> 0;
    inputPtr = ptr;
    inputBytes = written;
    // A lone surrogate is also written as 3 bytes (U+FFFD), but jieba's word must then read U+FFFD.
    uniform = written === text.length * 3 && !LONE_SURROGATE.test(text);
    let ret: [number, number];
    try {
      ret = wasm[entry](ptr, written, hmm ? 1 : 0);
    } finally {
      inputBytes = 0;
    }
    const [arr, n] = ret;
    const table = wasm.__wbindgen_export_2;
    const view = new DataView(wasm.memory.buffer, arr >>> 0, n * 4);
    const words = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const v = table.get(view.getUint32(i * 4, true)) as number | string;
      if (typeof v === 'string') words[i] = v;
      else {
        const start = Math.floor(v / LEN_RANGE);
        words[i] = text.slice(start, start + (v % LEN_RANGE));
      }
    }
    wasm.__externref_drop_slice(arr, n);
    wasm.__wbindgen_free(arr, n * 4, 4);
    return words;
  };
  return {
    cut: (text, hmm = true) => run('cut', text, hmm),
    cut_for_search: (text, hmm = true) => run('cut_for_search', text, hmm),
  };
}

/** Mixed text the self-check segments: Simplified, an unknown name for the HMM, Latin, digits, punctuation, a supplementary-plane character. */
const PROBE = '四川汶川发生8.0级地震，救援队伍陆续抵达灾区；温家宝总理赶赴都江堰。iPhone发布会在北京举行𠀾字';

/**
 * The slice binding must cut the probe into words that put back together give the probe (default
 * mode partitions its input) and must find the search-mode sub-words (温家 inside 温家宝). A changed
 * calling convention fails this; loading the package's own instance to compare word for word would
 * double the start-up cost (0.5 s, 67 MB), so that comparison lives in the tests instead.
 */
function selfCheck(fast: JiebaFunctions): void {
  for (const hmm of [true, false]) {
    const words = fast.cut(PROBE, hmm);
    if (words.join('') !== PROBE || words.length < 10) throw new Error('cut does not partition the probe text');
  }
  const search = fast.cut_for_search(PROBE, true);
  if (!search.includes('温家宝') || !search.includes('都江堰') || !search.includes('都江') || search.some((w) => !PROBE.includes(w)))
    throw new Error('cut_for_search gives words that are not in the probe text');
}

function load(): JiebaFunctions {
  if (process.env.JIEBA_BINDING === 'package') {
    jiebaFallbackReason = 'JIEBA_BINDING=package';
    return packageJieba();
  }
  try {
    const fast = sliceBinding();
    selfCheck(fast);
    jiebaBinding = 'slices';
    return fast;
  } catch (err) {
    jiebaFallbackReason = (err as Error).message;
    process.emitWarning(`jieba-wasm slice binding unavailable (${jiebaFallbackReason}); using the package's functions (slower)`);
    return packageJieba();
  }
}

let jieba = load();

/** A failure inside the slice binding (a WASM trap) leaves its instance unusable: switch for good. */
function guarded<T>(call: (j: JiebaFunctions) => T): T {
  try {
    return call(jieba);
  } catch (err) {
    if (jiebaBinding !== 'slices') throw err;
    jiebaBinding = 'package';
    jiebaFallbackReason = `slice binding failed: ${(err as Error).message}`;
    process.emitWarning(`jieba-wasm ${jiebaFallbackReason}; using the package's functions from now on`);
    jieba = packageJieba();
    return call(jieba);
  }
}

/** jieba's default mode: each run of text cut into words (HMM finds unknown words). */
export const cut = (text: string, hmm = true): string[] => timed('jieba', () => guarded((j) => j.cut(text, hmm)));
/** jieba's search-engine mode: `cut` plus the dictionary words inside long words. */
export const cutForSearch = (text: string, hmm = true): string[] => timed('jieba', () => guarded((j) => j.cut_for_search(text, hmm)));

// A GGUF model of about half a megabyte written on the spot (ggml `docs/gguf.md`): a two-layer,
// 64-wide LLaMA with a byte-fallback SentencePiece vocabulary and a ChatML template whose tool
// block is the Hermes/Qwen `<tool_call>` format, so llama.cpp (in wllama) recognises it and
// parses calls. Nothing is downloaded: the tests and the demo's end-to-end run load these bytes.
//
// Without a script the weights are seeded noise (a model that rambles, for load, stream, cancel
// and constrained-decoding tests). With a script the network is a bigram table: attention and
// feed-forward outputs are zero, so the logits depend only on the last token, and greedy decoding
// picks the best-ranked token the grammar allows. Each token named in `after` gets an embedding
// dimension of its own holding its successors' ranking; every other token uses dimension 0,
// which holds `default`.
// Uses only DataView, TextEncoder and typed arrays, so it runs in Node and in a page.

/** A bigram script: the ranking after any token, and after the named ones. */
export interface TinyGgufScript {
  default: string[];
  after?: Record<string, string[]>;
}

const DIM = 64;
const FFN = 128;
const LAYERS = 2;
const SPECIALS = ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"] as const;

/** The chat template: ChatML with a Hermes-style tool block. After a tool result the generation
 * prompt ends in a space instead of a newline, so a script can tell the two turns apart. */
export const TINY_TEMPLATE = `{%- if tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}
{% endif %}Tools:
<tools>{% for tool in tools %}
{{ tool | tojson }}{% endfor %}
</tools>
Call a tool as:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% elif messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% elif message.role == 'assistant' %}<|im_start|>assistant
{% if message.content %}{{ message.content }}{% endif %}
{%- for tool_call in message.tool_calls or [] %}
<tool_call>
{"name": "{{ tool_call.function.name }}", "arguments": {{ tool_call.function.arguments | tojson }}}
</tool_call>{% endfor %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{ '<|im_start|>assistant' }}{% if messages[-1].role == 'tool' %}{{ ' ' }}{% else %}{{ '\\n' }}{% endif %}{% endif %}`;

interface Vocab {
  tokens: string[];
  types: number[];
  id(text: string): number;
}

function vocabulary(): Vocab {
  const tokens = ["<unk>", "<s>", "</s>"];
  const types = [2, 3, 3];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(6);
  }
  tokens.push("▁");
  types.push(1);
  for (let c = 0x21; c <= 0x7e; c++) {
    tokens.push(String.fromCharCode(c));
    types.push(1);
  }
  for (const special of SPECIALS) {
    tokens.push(special);
    types.push(special.startsWith("<|") ? 3 : 4);
  }
  const index = new Map(tokens.map((t, i) => [t, i]));
  return {
    tokens,
    types,
    id: (text) => {
      // For scripts: " " is SentencePiece's "▁", "\n" and other controls are byte tokens.
      const key = text === " " ? "▁" : text;
      const found = index.get(key);
      if (found !== undefined) return found;
      if (key.length === 1 && key.charCodeAt(0) < 0x80) return 3 + key.charCodeAt(0);
      throw new Error(`tiny GGUF has no token ${JSON.stringify(text)}`);
    },
  };
}

// mulberry32: a few lines, seeded, good enough for noise.
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Returns the bytes of a tiny GGUF model. `script` makes its answers fixed; without it the
 * weights are seeded noise.
 */
export function tinyGguf(options: { script?: TinyGgufScript; seed?: number } = {}): Uint8Array {
  const vocab = vocabulary();
  const n = vocab.tokens.length;
  const noise = random(options.seed ?? 1);
  const small = (size: number, scripted: boolean) =>
    Float32Array.from({ length: size }, () => (scripted ? 0 : (noise() - 0.5) * 0.1));
  const ones = (size: number) => new Float32Array(size).fill(1);
  const script = options.script;
  const embd = new Float32Array(DIM * n);
  const output = new Float32Array(DIM * n);
  if (script) {
    const contexts = Object.keys(script.after ?? {});
    if (contexts.length >= DIM) throw new Error("tiny GGUF: at most 63 scripted contexts");
    const dimOf = new Map(contexts.map((c, i) => [vocab.id(c), i + 1]));
    for (let t = 0; t < n; t++) embd[t * DIM + (dimOf.get(t) ?? 0)] = 1;
    const rank = (dim: number, ranking: string[]) => {
      // A context's own ranking comes first, then the default one, so a grammar that
      // refuses the scripted successor still falls back to the default order.
      const all = dim === 0 ? ranking : [...ranking, ...script.default];
      all.forEach((token, i) => {
        const cell = vocab.id(token) * DIM + dim;
        if (output[cell] === 0) output[cell] = (all.length - i) * 2;
      });
    };
    rank(0, script.default);
    for (const [context, ranking] of Object.entries(script.after ?? {})) {
      rank(dimOf.get(vocab.id(context)) as number, ranking);
    }
  } else {
    embd.set(small(DIM * n, false));
    output.set(small(DIM * n, false));
    // No byte 0x80–0xFF, so greedy decoding never writes invalid UTF-8.
    output.fill(0, 131 * DIM, 259 * DIM);
  }
  const tensors: Array<{ name: string; dims: number[]; data: Float32Array }> = [
    { name: "token_embd.weight", dims: [DIM, n], data: embd },
    { name: "output_norm.weight", dims: [DIM], data: ones(DIM) },
    { name: "output.weight", dims: [DIM, n], data: output },
  ];
  const scripted = script !== undefined;
  for (let b = 0; b < LAYERS; b++) {
    const p = `blk.${b}.`;
    tensors.push(
      { name: `${p}attn_norm.weight`, dims: [DIM], data: ones(DIM) },
      { name: `${p}attn_q.weight`, dims: [DIM, DIM], data: small(DIM * DIM, false) },
      { name: `${p}attn_k.weight`, dims: [DIM, DIM], data: small(DIM * DIM, false) },
      { name: `${p}attn_v.weight`, dims: [DIM, DIM], data: small(DIM * DIM, false) },
      { name: `${p}attn_output.weight`, dims: [DIM, DIM], data: small(DIM * DIM, scripted) },
      { name: `${p}ffn_norm.weight`, dims: [DIM], data: ones(DIM) },
      { name: `${p}ffn_gate.weight`, dims: [DIM, FFN], data: small(DIM * FFN, false) },
      { name: `${p}ffn_up.weight`, dims: [DIM, FFN], data: small(DIM * FFN, false) },
      { name: `${p}ffn_down.weight`, dims: [FFN, DIM], data: small(DIM * FFN, scripted) },
    );
  }
  const kv: Array<[string, Value]> = [
    ["general.architecture", str("llama")],
    ["general.name", str("toolwire tiny test model")],
    ["general.alignment", u32(32)],
    ["llama.context_length", u32(8192)],
    ["llama.embedding_length", u32(DIM)],
    ["llama.block_count", u32(LAYERS)],
    ["llama.feed_forward_length", u32(FFN)],
    ["llama.rope.dimension_count", u32(16)],
    ["llama.attention.head_count", u32(4)],
    ["llama.attention.head_count_kv", u32(4)],
    ["llama.attention.layer_norm_rms_epsilon", f32(1e-5)],
    ["tokenizer.ggml.model", str("llama")],
    ["tokenizer.ggml.tokens", { type: 9, items: { type: 8, values: vocab.tokens } }],
    [
      "tokenizer.ggml.scores",
      { type: 9, items: { type: 6, values: vocab.tokens.map((_, i) => -i) } },
    ],
    ["tokenizer.ggml.token_type", { type: 9, items: { type: 5, values: vocab.types } }],
    ["tokenizer.ggml.bos_token_id", u32(1)],
    ["tokenizer.ggml.eos_token_id", u32(2)],
    ["tokenizer.ggml.unknown_token_id", u32(0)],
    ["tokenizer.ggml.add_bos_token", { type: 7, value: true }],
    ["tokenizer.ggml.add_space_prefix", { type: 7, value: false }],
    ["tokenizer.chat_template", str(TINY_TEMPLATE)],
  ];
  return write(kv, tensors);
}

type Value =
  | { type: 4 | 5 | 6; value: number }
  | { type: 7; value: boolean }
  | { type: 8; value: string }
  | { type: 9; items: { type: 5 | 6; values: number[] } | { type: 8; values: string[] } };

const str = (value: string): Value => ({ type: 8, value });
const u32 = (value: number): Value => ({ type: 4, value });
const f32 = (value: number): Value => ({ type: 6, value });

function write(
  kv: Array<[string, Value]>,
  tensors: Array<{ name: string; dims: number[]; data: Float32Array }>,
) {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const put = (bytes: Uint8Array) => {
    chunks.push(bytes);
    size += bytes.length;
  };
  const num = (bytes: number, set: (view: DataView) => void) => {
    const view = new DataView(new ArrayBuffer(bytes));
    set(view);
    put(new Uint8Array(view.buffer));
  };
  const U32 = (v: number) => num(4, (d) => d.setUint32(0, v, true));
  const U64 = (v: number) => num(8, (d) => d.setBigUint64(0, BigInt(v), true));
  const STR = (s: string) => {
    const bytes = encoder.encode(s);
    U64(bytes.length);
    put(bytes);
  };
  const scalar = (type: number, v: number | string) => {
    if (type === 4) U32(v as number);
    else if (type === 5) num(4, (d) => d.setInt32(0, v as number, true));
    else if (type === 6) num(4, (d) => d.setFloat32(0, v as number, true));
    else STR(v as string);
  };
  put(encoder.encode("GGUF"));
  U32(3);
  U64(tensors.length);
  U64(kv.length);
  for (const [key, value] of kv) {
    STR(key);
    U32(value.type);
    if (value.type === 9) {
      U32(value.items.type);
      U64(value.items.values.length);
      for (const item of value.items.values) scalar(value.items.type, item);
    } else if (value.type === 7) put(Uint8Array.of(value.value ? 1 : 0));
    else scalar(value.type, value.value);
  }
  const align = (x: number) => Math.ceil(x / 32) * 32;
  let offset = 0;
  for (const tensor of tensors) {
    STR(tensor.name);
    U32(tensor.dims.length);
    for (const dim of tensor.dims) U64(dim);
    U32(0); // F32
    U64(offset);
    offset = align(offset + tensor.data.byteLength);
  }
  put(new Uint8Array(align(size) - size));
  for (const tensor of tensors) {
    const bytes = new Uint8Array(
      tensor.data.buffer,
      tensor.data.byteOffset,
      tensor.data.byteLength,
    );
    put(bytes);
    put(new Uint8Array(align(bytes.length) - bytes.length));
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

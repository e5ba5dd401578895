// Reading bytes four at a time: a host-endian Int32Array over a whole buffer, kept for the last
// buffer seen (block reads hand out many pages of one batch buffer, so the view is reused).
export const HOST_LE = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** A one-entry cache of word views; each hot loop keeps its own, so two do not evict each other. */
export function wordViewCache(): (buf: ArrayBufferLike) => Int32Array<ArrayBufferLike> {
  let last: ArrayBufferLike | null = null;
  let words: Int32Array<ArrayBufferLike> = new Int32Array(0);
  return (buf) => {
    if (buf !== last) {
      last = buf;
      words = new Int32Array(buf, 0, buf.byteLength >>> 2);
    }
    return words;
  };
}

/** A one-entry cache of DataViews over whole buffers (big-endian reads at any offset). */
export function dataViewCache(): (buf: ArrayBufferLike) => DataView<ArrayBufferLike> {
  let last: ArrayBufferLike | null = null;
  let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  return (buf) => {
    if (buf !== last) {
      last = buf;
      view = new DataView(buf);
    }
    return view;
  };
}

// TOAST, both flavours: stock chunks found through the TOAST index (or a heap scan), Direct TOAST
// values found by TID (new-formats.md §1), incremental decompression, writers and the §1.5 checker.
export * from "./chunk-desc.js";
export * from "./tiers.js";
export * from "./chunk.js";
export * from "./chunk-form.js";
export * from "./chunk-map.js";
export * from "./pages.js";
export * from "./toast-index.js";
export * from "./plain-chunks.js";
export * from "./direct-chunks.js";
export * from "./reader.js";
export * from "./heap-writer.js";
export * from "./value-writer.js";
export * from "./index-build.js";
export * from "./reform.js";

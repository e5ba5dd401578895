export * from "./util.js";
export * from "./hash.js";
export * from "./gist.js";
export * from "./gin.js";
export * from "./spgist.js";
export * from "./brin.js";
export * from "./sequence.js";
export * from "./detect.js";

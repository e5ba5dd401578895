export * from "./opaque.js";
export * from "./meta.js";
export * from "./index-tuple.js";
export * from "./page-items.js";
export * from "./prefix.js";
export * from "./prefix-policy.js";
export * from "./prefix-page.js";

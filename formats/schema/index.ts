export * from "./struct.js";
export * from "./errors.js";
export * from "./bytes.js";

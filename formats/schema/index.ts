export * from "./struct.js";
export * from "./errors.js";

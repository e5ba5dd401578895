// The range checks of float.h's float8_pl/mi/mul/div (and float4's, after Math.fround): an
// infinite result of finite operands overflows, a zero result that the operands do not make
// zero underflows. Shared by the expression evaluator and the geometric input functions.

/** The server's message for the result `r` of an operation on `a` and `b`, or undefined when it is in range; `zeroOk`: a zero result is exact (a zero operand, a division by infinity). */
export function floatRangeError(r: number, a: number, b: number, zeroOk: boolean): string | undefined {
  if (!Number.isFinite(r) && !Number.isNaN(r) && Number.isFinite(a) && Number.isFinite(b)) return "value out of range: overflow";
  if (r === 0 && !zeroOk) return "value out of range: underflow";
  return undefined;
}

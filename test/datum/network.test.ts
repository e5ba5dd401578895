// inet, cidr (IPv4 and IPv6, compressed zero runs, embedded IPv4), macaddr, macaddr8.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(869);
const byte = (): number => Math.floor(random() * 256);
const hex16 = (): string => (random() < 0.4 ? "0" : Math.floor(random() * 65536).toString(16));
const v4 = (): string => `${byte()}.${byte()}.${byte()}.${byte()}`;
const v6 = (): string => Array.from({ length: 8 }, hex16).join(":");

const inet = [
  "'1.2.3.4'", "'1.2.3.4/32'", "'1.2.3.4/24'", "'0.0.0.0/0'", "'255.255.255.255'", "'10.0.0.1/8'", "'::'", "'::1'", "'::2'", "'1::'", "'::/0'", "'::1/128'", "'fe80::1/64'",
  "'::ffff:1.2.3.4'", "'::1.2.3.4'", "'::0.1.2.3'", "'::ffff:0:0'", "'::fffe:1.2.3.4'", "'1:0:0:1:0:0:0:1'", "'1:0:0:1:0:0:1:1'", "'0:0:0:0:0:0:1:0'", "'1:2:3:4:5:6:0:0'",
  "'1:2:3:4:5:6:7:8'", "'2001:db8::ff00:42:8329'", "'2001:DB8:0:0:1::1/96'", "'0:0:1::'", "'1:0::'", "'::1:0:0:0'", "'0:1::1'",
  ...Array.from({ length: 200 }, () => `'${v4()}/${Math.floor(random() * 33)}'`),
  ...Array.from({ length: 400 }, () => `'${v6()}${random() < 0.5 ? "/" + Math.floor(random() * 129) : ""}'`),
];

test("inet matches the server", () => {
  const r = h.check("inet", inet);
  assert.equal(r.mismatches.length, 0, describe("inet", r));
  assert.equal(r.compared, inet.length);
});

test("cidr matches the server", () => {
  const values = [...inet.map((v) => `network(${v}::inet)`), "'10/8'", "'192.168'", "'2001:db8::/32'", "'::/0'", "'0.0.0.0/0'"];
  const r = h.check("cidr", values);
  assert.equal(r.mismatches.length, 0, describe("cidr", r));
  assert.equal(r.compared, values.length);
});

test("macaddr and macaddr8 match the server", () => {
  const mac = (n: number): string => `'${Array.from({ length: n }, () => byte().toString(16).padStart(2, "0")).join(":")}'`;
  for (const [type, n] of [["macaddr", 6], ["macaddr8", 8]] as const) {
    const values = ["'00:00:00:00:00:00'", "'FF-FF-FF-FF-FF-FF'", "'0800.2b01.0203'", ...Array.from({ length: 100 }, () => mac(n))];
    const r = h.check(type, values);
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.length);
  }
});

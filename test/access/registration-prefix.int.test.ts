/**
 * Registration limits count an IPv6 client by its /64 (one host holds a whole /64, so counting by
 * address let it register without limit) and an IPv4 /24 as a network allowed a few clients' worth,
 * so a handful of addresses of one network cannot use up the service-wide hourly cap for everyone
 * (issue 59, low). Counted in a real control store (PGlite), as the service counts them.
 */
import { PREFIX_MULTIPLE, RegistrationLimits } from '../../services/access/registration-limits.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { freshControlStore } from '../support/control-template.js';
import type { ControlStore } from '../../services/ports/control-store.js';

let control: ControlStore;
beforeAll(async () => {
  control = await freshControlStore();
  await migrateControlStore(control);
}, 60_000);
afterAll(() => control?.close());

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

test('addresses of one IPv6 /64 share one allowance; another /64 has its own', async () => {
  const limits = new RegistrationLimits(control, { perIpPerHour: 3, perHour: 1_000 }, () => NOW);
  const admitted = [];
  for (let host = 1; host <= 6; host++) admitted.push((await limits.admit(`2001:db8:1:2::${host.toString(16)}`)) === null);
  expect(admitted).toEqual([true, true, true, false, false, false]);
  const refusal = await limits.admit('2001:0db8:0001:0002:ffff:ffff:ffff:ffff');
  expect(refusal?.reason).toMatch(/IPv6 \/64 counts as one/);
  expect(await limits.admit('2001:db8:1:3::1')).toBeNull();
});

test('an IPv4 /24 may register PREFIX_MULTIPLE addresses worth, then the service-wide cap is left for others', async () => {
  const perIp = 2;
  const limits = new RegistrationLimits(control, { perIpPerHour: perIp, perHour: 1_000 }, () => NOW);
  let admitted = 0;
  for (let host = 1; host <= 50; host++) {
    for (let attempt = 0; attempt < perIp; attempt++) if ((await limits.admit(`198.51.100.${host}`)) === null) admitted++;
  }
  expect(admitted).toBe(perIp * PREFIX_MULTIPLE);
  const refusal = await limits.admit('198.51.100.200');
  expect(refusal?.reason).toMatch(/one network \(\/24\)/);
  expect(await limits.admit('203.0.113.7')).toBeNull();
});

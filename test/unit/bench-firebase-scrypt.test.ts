import { describe, expect, it } from 'vitest';
import { verifyPassword } from '#functions/domain/passwords/index.js';
import { firebaseScryptDigest, firebaseScryptHash } from '../../bench/lib/firebase-scrypt.js';

// The worked example of github.com/firebase/scrypt (README), also used by the integration tests.
const EXAMPLE = {
  password: 'user1password',
  salt: '42xEC+ixf3L2lw==',
  saltSeparator: 'Bw==',
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  rounds: 8,
  memCost: 14,
};
const DIGEST = 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';

describe('bench Firebase scrypt hash generator', () => {
  it("reproduces Firebase's published example", async () => {
    expect(await firebaseScryptDigest(EXAMPLE)).toBe(DIGEST);
    expect(await firebaseScryptHash(EXAMPLE)).toBe(`$f_scrypt$${DIGEST}$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==`);
  });

  it("is accepted by the core's verifyPassword with the signer key, and only the right password", async () => {
    const hash = await firebaseScryptHash(EXAMPLE);
    expect(await verifyPassword('user1password', hash, { firebaseSignerKey: EXAMPLE.signerKey })).toEqual({ ok: true });
    expect((await verifyPassword('wrong', hash, { firebaseSignerKey: EXAMPLE.signerKey })).ok).toBe(false);
  });
});

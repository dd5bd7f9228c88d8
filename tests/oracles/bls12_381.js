// Oracle for core/ec and core/pairing tests: @noble/curves 1.9.7 (independent of our code).
// stdin: a JSON array of requests; stdout: one line per request, same order, space-separated
// tokens (easy to read from C). Scalars are hex strings (no 0x, any size, taken mod r), points
// are hex zcash encodings, Fp12 values are 12 hex Fp coefficients in the order c0.c0.c0,
// c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - (u + 1))).
//   {op:"g1mul"|"g2mul", k}                -> "<compressed> <uncompressed>" of [k]·G
//   {op:"g1lin"|"g2lin", ks:[..], ps:[..]} -> "<compressed> <uncompressed>" of sum ks[i]·ps[i]
//   {op:"g1check"|"g2check", p}            -> "<valid> <onCurve> <torsionFree>" as 0/1
//                                             (valid: noble's fromHex accepts the encoding;
//                                             the others are raw verdicts for uncompressed input)
//   {op:"pair", a, b}                      -> 12 hex: e([a]G1, [b]G2)
//   {op:"pairbytes", p, q}                 -> 12 hex: e(P, Q) for encoded points
//   {op:"pairprod", as:[..], bs:[..]}      -> 1 when prod e([a_i]G1, [b_i]G2) == 1, else 0
'use strict';
const { bls12_381: bls } = require('@noble/curves/bls12-381');

const G1 = bls.G1.ProjectivePoint;
const G2 = bls.G2.ProjectivePoint;
const Fp12 = bls.fields.Fp12;
const r = bls.fields.Fr.ORDER;

const big = (h) => BigInt('0x' + (h.length ? h : '0'));
const mod = (k) => ((k % r) + r) % r;
const mul = (P, k) => {
  const m = mod(k);
  return m === 0n ? P.constructor.ZERO : P.multiply(m);
};
const enc = (P) => P.toHex(true) + ' ' + P.toHex(false);
const fphex = (v) => v.toString(16).padStart(96, '0');
const fp12 = (f) => {
  const out = [];
  for (const c6 of [f.c0, f.c1])
    for (const c2 of [c6.c0, c6.c1, c6.c2]) out.push(fphex(c2.c0), fphex(c2.c1));
  return out.join(' ');
};

// e(O, Q) = e(P, O) = 1 (noble refuses the point at infinity).
const pairing = (P, Q) => (P.equals(G1.ZERO) || Q.equals(G2.ZERO) ? Fp12.ONE : bls.pairing(P, Q));

function check(Pt, hex) {
  const res = { valid: false, onCurve: false, torsionFree: false };
  try {
    Pt.fromHex(hex);
    res.valid = true;
  } catch (e) {
    /* rejected */
  }
  // Raw on-curve / subgroup verdicts for uncompressed encodings, bypassing fromHex's checks.
  try {
    const b = Buffer.from(hex, 'hex');
    if (!(b[0] & 0xc0)) {
      const L = b.length / 2;
      let P;
      if (Pt === G1) {
        P = G1.fromAffine({ x: big(b.subarray(0, L).toString('hex')), y: big(b.subarray(L).toString('hex')) });
      } else {
        const h = (i) => big(b.subarray(i * 48, (i + 1) * 48).toString('hex'));
        const Fp2 = bls.fields.Fp2;
        P = G2.fromAffine({ x: Fp2.fromBigTuple([h(1), h(0)]), y: Fp2.fromBigTuple([h(3), h(2)]) });
      }
      const x = P.toAffine();
      const Fp = Pt === G1 ? bls.fields.Fp : bls.fields.Fp2;
      const b4 = Pt === G1 ? 4n : Fp.fromBigTuple([4n, 4n]);
      const lhs = Fp.sqr(x.y);
      const rhs = Fp.add(Fp.mul(Fp.sqr(x.x), x.x), Pt === G1 ? bls.fields.Fp.create(b4) : b4);
      res.onCurve = Fp.eql(lhs, rhs);
      // [r]P == O as [r - 1]P + P (noble refuses the scalar r itself)
      if (res.onCurve) res.torsionFree = P.multiplyUnsafe(r - 1n).add(P).equals(Pt.ZERO);
    } else if (res.valid) {
      res.onCurve = true;
      res.torsionFree = true;
    }
  } catch (e) {
    /* leave the raw verdicts false */
  }
  return [res.valid, res.onCurve, res.torsionFree].map(Number).join(' ');
}

function answer(q) {
  switch (q.op) {
    case 'g1mul':
      return enc(mul(G1.BASE, big(q.k)));
    case 'g2mul':
      return enc(mul(G2.BASE, big(q.k)));
    case 'g1lin':
    case 'g2lin': {
      const Pt = q.op === 'g1lin' ? G1 : G2;
      let acc = Pt.ZERO;
      q.ks.forEach((k, i) => {
        acc = acc.add(mul(Pt.fromHex(q.ps[i]), big(k)));
      });
      return enc(acc);
    }
    case 'g1check':
      return check(G1, q.p);
    case 'g2check':
      return check(G2, q.p);
    case 'pair':
      return fp12(pairing(mul(G1.BASE, big(q.a)), mul(G2.BASE, big(q.b))));
    case 'pairbytes':
      return fp12(pairing(G1.fromHex(q.p), G2.fromHex(q.q)));
    case 'pairprod': {
      let f = Fp12.ONE;
      q.as.forEach((a, i) => {
        f = Fp12.mul(f, pairing(mul(G1.BASE, big(a)), mul(G2.BASE, big(q.bs[i]))));
      });
      return Fp12.eql(f, Fp12.ONE) ? '1' : '0';
    }
    default:
      throw new Error('unknown op ' + q.op);
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const reqs = JSON.parse(input);
  process.stdout.write(reqs.map((q) => answer(q) + '\n').join(''));
});

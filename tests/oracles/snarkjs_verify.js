// Oracle for core/groth16: snarkjs 0.7.6 Groth16 verification on curve bls12381 (independent of
// our verifier), plus a cross-check of our 192-byte compressed proof against the JSON coordinates
// with @noble/curves.
// stdin: JSON array of {vk, public, proof, bytes?} (snarkjs JSON objects; bytes = hex of A‖B‖C).
// stdout: one line per item: "<verified 0/1> <bytes match 0/1, or - without bytes>".
'use strict';
const snarkjs = require('snarkjs');
const { bls12_381: bls } = require('@noble/curves/bls12-381');

function bytesMatch(item) {
  if (!item.bytes) return '-';
  try {
    const h = item.bytes;
    if (h.length !== 384) return '0';
    const A = bls.G1.ProjectivePoint.fromHex(h.slice(0, 96)).toAffine();
    const B = bls.G2.ProjectivePoint.fromHex(h.slice(96, 288)).toAffine();
    const C = bls.G1.ProjectivePoint.fromHex(h.slice(288)).toAffine();
    const p = item.proof;
    const ok =
      A.x === BigInt(p.pi_a[0]) && A.y === BigInt(p.pi_a[1]) &&
      B.x.c0 === BigInt(p.pi_b[0][0]) && B.x.c1 === BigInt(p.pi_b[0][1]) &&
      B.y.c0 === BigInt(p.pi_b[1][0]) && B.y.c1 === BigInt(p.pi_b[1][1]) &&
      C.x === BigInt(p.pi_c[0]) && C.y === BigInt(p.pi_c[1]);
    return ok ? '1' : '0';
  } catch (e) {
    return '0';
  }
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const items = JSON.parse(input);
  const out = [];
  for (const it of items) {
    let ok = false;
    try {
      ok = await snarkjs.groth16.verify(it.vk, it.public, it.proof);
    } catch (e) {
      ok = false;
    }
    out.push((ok ? '1' : '0') + ' ' + bytesMatch(it));
  }
  process.stdout.write(out.join('\n') + '\n');
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });

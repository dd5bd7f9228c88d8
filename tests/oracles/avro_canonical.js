// Canonical forms from avsc (an independent Avro implementation) for test_avro_oracle.c.
// stdin: JSON list of schema texts; stdout: JSON list of JSON.stringify(Type.forSchema(s).schema()).
'use strict';
const avsc = require('avsc');
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((text) => JSON.stringify(avsc.Type.forSchema(JSON.parse(text)).schema()));
  process.stdout.write(JSON.stringify(out));
});

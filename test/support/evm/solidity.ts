/**
 * Compiles the test contracts in this folder with solc-js (npm `solc`) at test time; nothing
 * compiled is committed. evmVersion `paris` keeps PUSH0 out so the bytecode runs on any EVM node.
 * The output is memoised in the OS temp folder by source hash and compiler version, because loading
 * the compiler costs about a second per test file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export function compileContract(file: string, contract: string): CompiledContract {
  const source = fs.readFileSync(path.join(HERE, file), 'utf8');
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const digest = crypto.createHash('sha256').update(`${solcVersion}\n${contract}\n${source}`).digest('hex').slice(0, 16);
  const cached = path.join(os.tmpdir(), `tapeline-solc-${contract}-${digest}.json`);
  if (fs.existsSync(cached)) return JSON.parse(fs.readFileSync(cached, 'utf8')) as CompiledContract;

  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { [file]: { content: source } },
        settings: {
          evmVersion: 'paris',
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  ) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const compiled = output.contracts[file]?.[contract];
  if (!compiled) throw new Error(`solc: no contract ${contract} in ${file}`);
  const result: CompiledContract = { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  // Write then rename: parallel test workers never read a half-written file.
  const temporary = `${cached}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(result));
  fs.renameSync(temporary, cached);
  return result;
}

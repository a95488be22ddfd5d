/**
 * An S3-compatible server on 127.0.0.1 for tests: moto's server mode (PyPI `moto[server]`, pinned) in a
 * virtual environment cached under ~/.cache/tapeline (TAPELINE_MOTO_VENV), built on first use. Its
 * Python also has boto3, an S3 client independent of the engine that writes the objects.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const MOTO = 'moto[server]==5.2.5';
export const S3_TEST_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

function venv(): string {
  const dir = process.env.TAPELINE_MOTO_VENV ?? path.join(os.homedir(), '.cache', 'tapeline', 'moto-5.2.5');
  if (!fs.existsSync(path.join(dir, 'bin', 'moto_server'))) {
    execFileSync('python3', ['-m', 'venv', dir], { stdio: 'inherit' });
    execFileSync(path.join(dir, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', MOTO], { stdio: 'inherit' });
  }
  return dir;
}

export interface S3Server {
  endpoint: string;
  /** Every object under `prefix` of `bucket`, read back with boto3: key, size and SHA-256 of its bytes. */
  objects(bucket: string, prefix: string): Promise<Array<{ key: string; size: number; sha256: string }>>;
  createBucket(bucket: string): Promise<void>;
  stop(): void;
}

const BOTO = `
import boto3, hashlib, json, sys
endpoint, action, bucket, prefix = sys.argv[1:5]
s3 = boto3.client('s3', endpoint_url=endpoint, aws_access_key_id='testing', aws_secret_access_key='testing', region_name='us-east-1')
if action == 'create':
    s3.create_bucket(Bucket=bucket)
else:
    out = []
    for page in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket, Prefix=prefix):
        for o in page.get('Contents', []):
            body = s3.get_object(Bucket=bucket, Key=o['Key'])['Body'].read()
            out.append({'key': o['Key'], 'size': o['Size'], 'sha256': hashlib.sha256(body).hexdigest()})
    print(json.dumps(sorted(out, key=lambda o: o['key'])))
`;

export async function startS3Server(): Promise<S3Server> {
  const dir = venv();
  const port = await freePort();
  const child = spawn(path.join(dir, 'bin', 'moto_server'), ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(endpoint).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (i > 200) throw new Error('moto_server did not answer within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const boto = (action: string, bucket: string, prefix: string) =>
    promisify(execFile)(path.join(dir, 'bin', 'python'), ['-c', BOTO, endpoint, action, bucket, prefix]);
  return {
    endpoint,
    async createBucket(bucket) {
      await boto('create', bucket, '');
    },
    async objects(bucket, prefix) {
      return JSON.parse((await boto('list', bucket, prefix)).stdout);
    },
    stop: () => child.kill('SIGTERM'),
  };
}

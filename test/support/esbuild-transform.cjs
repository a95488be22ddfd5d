// Jest transformer: strips TypeScript with esbuild (the same compiler tsx uses at run time),
// keeping ES modules so tests run the exact module graph the service runs.
const { transformSync } = require('esbuild');

module.exports = {
  canInstrument: false,
  process(source, filename) {
    const result = transformSync(source, {
      loader: filename.endsWith('.ts') ? 'ts' : 'js',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: filename,
    });
    return { code: result.code };
  },
};

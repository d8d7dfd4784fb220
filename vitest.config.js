// Vitest (Node) tests of the JS API: tests/js only (browser tests run elsewhere).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

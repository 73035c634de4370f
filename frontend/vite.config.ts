/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

// The app-server (Rust) serves the product API under /api and the built-in
// identity service under /auth. In development Vite proxies both to it.
const backend = process.env.PORTAL_DEV_BACKEND ?? 'http://127.0.0.1:8080';

const proxy: Record<string, ProxyOptions> = {
  '/api/': { target: backend },
  '/auth/': { target: backend },
};

export default defineConfig({
  plugins: [react()],
  server: { proxy },
  preview: { proxy },
  build: {
    outDir: 'dist',
    sourcemap: true,
    // dist/.vite/manifest.json: which chunks each route loads (make bench measures them).
    manifest: true,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    // Component tests drive whole pages (MUI, the store, msw); on a busy two-core machine one can take
    // several seconds, so the default 5 s limit fails them for load, not for a fault.
    testTimeout: 30_000,
  },
});

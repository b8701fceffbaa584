// Builds the browser app from app/ into dist/ (embedded into the plane binary by plane/build.rs).
//
// Development: start a plane with APP_BASE_URL=http://localhost:5173 (or with
// TRUSTED_ORIGINS=http://localhost:5173; passkeys then work only at the plane's own address),
// then `npm run dev` here; TERMPLANE_URL (default http://127.0.0.1:7420) names the plane the
// dev server forwards the API, the sockets and the reference to.
import { defineConfig } from "vite";

declare const process: { env: Record<string, string | undefined> };
const plane = process.env.TERMPLANE_URL ?? "http://127.0.0.1:7420";
const proxy = {
  "/api": { target: plane, ws: true },
  "/docs": { target: plane },
  "/ws": { target: plane, ws: true },
};

export default defineConfig({
  root: "app",
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    cssCodeSplit: false,
    sourcemap: false,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
  },
  server: { port: 5173, strictPort: true, proxy },
  preview: { port: 5173, strictPort: true, proxy },
});

/// <reference types="vitest/config" />
// Vite builds the dashboard into web/dist, which `finrpa serve` serves at "/". esbuild compiles the JSX;
// the dev server proxies /api to a local `finrpa serve` (FINRPA_API_URL, default http://127.0.0.1:8000).
import { defineConfig } from "vite";

export default defineConfig({
  esbuild: { jsx: "automatic" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1600,
    rollupOptions: {
      onwarn(warning, warn) {
        // antd marks its modules "use client" for React Server Components; meaningless in a browser bundle.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
      output: {
        manualChunks: {
          react: ["react", "react-dom", "react-router-dom"],
          antd: ["antd", "@ant-design/icons"],
          echarts: ["echarts", "echarts-for-react"],
        },
      },
    },
  },
  server: {
    proxy: { "/api": process.env.FINRPA_API_URL ?? "http://127.0.0.1:8000" },
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});

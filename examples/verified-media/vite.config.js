// Two entries: the page (index.html, with main.js) and the Service Worker
// (sw.js), which must keep its name and sit at the root of the site: a
// worker's scope is at most the folder its script is in. (A plain object:
// `defineConfig` from 'vite' would only add types.)
export default {
  build: {
    target: 'es2022',
    rollupOptions: {
      input: { main: 'index.html', sw: 'sw.js' },
      output: { entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
    },
  },
};

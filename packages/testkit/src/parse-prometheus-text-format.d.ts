// The package ships no types: it returns the prom2json shape, typed where it is used.
declare module 'parse-prometheus-text-format' {
  // eslint-disable-next-line no-restricted-syntax -- the package's one export is its default
  export default function parsePrometheusTextFormat(text: string): unknown[];
}

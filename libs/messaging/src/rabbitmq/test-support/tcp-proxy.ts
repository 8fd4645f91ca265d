// Moved to @comanda/testing, where tests of every library find it.
export { TcpProxy } from '@comanda/testing';

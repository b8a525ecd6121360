/**
 * cli/ is the command line: flags become options, commands call the same analysis the
 * worker does, and errors become exit codes. Nothing imports it but bin/.
 */
export { main, type CliIO } from './main.js';

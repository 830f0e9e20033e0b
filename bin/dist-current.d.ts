/** See dist-current.js. */
export function distIsCurrent(): boolean;

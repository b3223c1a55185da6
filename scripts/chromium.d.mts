/** Path of the Chromium executable the browser tests drive (`CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`). */
export declare const CHROMIUM_PATH: string;
/** Launch flags for headless Chromium on these machines. */
export declare const CHROMIUM_FLAGS: string[];

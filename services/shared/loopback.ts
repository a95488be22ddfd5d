/** Whether a URL points at this machine (the simulator, a local node) rather than a real upstream. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}

/** Asks the API whether it is up. */
export async function isApiUp(base: string): Promise<boolean> {
  const response = await fetch(new URL('/healthz', base))
  return response.ok
}

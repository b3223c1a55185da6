/** Text for a message, cut to 200 characters (server text and hrefs can be long or hostile). */
export function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `app-put-v2` → `AppPutV2` (construct ids are PascalCase; manifest ids are kebab-case). */
export function pascalCase(id: string): string {
  return id
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The few DOM helpers the views share: build an element, show a message, read a form. */

type Child = Node | string | false | undefined;

/** An element with attributes (`on…` ones as listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | EventListener> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false) element.setAttribute(name, value);
  }
  for (const child of children) if (child !== false && child !== undefined) element.append(child);
  return element;
}

/** A titled part of a page (a landmark region, named by its heading). */
export function section(id: string, title: string, ...children: Child[]): HTMLElement {
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** A labelled input. */
export function field(label: string, attributes: Record<string, string | boolean>): HTMLLabelElement {
  return h('label', {}, h('span', {}, label), h('input', attributes));
}

/** The view's status line (role `status`, or `alert` for an error). */
export function say(text: string, kind: 'status' | 'alert' = 'status'): void {
  let line = document.getElementById('message');
  if (!line) {
    line = messageLine();
    document.getElementById('view')?.prepend(line);
  }
  line.textContent = text;
  line.setAttribute('role', kind);
  line.className = kind === 'alert' ? 'message error' : 'message';
}

export function messageLine(): HTMLParagraphElement {
  return h('p', { id: 'message', class: 'message', role: 'status' });
}

/** The value of a form's named input. */
export function inputValue(form: HTMLFormElement, name: string): string {
  const input = form.elements.namedItem(name);
  return input instanceof HTMLInputElement ? input.value : '';
}

/**
 * Runs a form's or button's action with its buttons disabled, and shows what went wrong if it
 * threw (the SDK throws for the backend's GENERAL_ERROR and for network failures).
 */
export async function busy(root: HTMLElement, action: () => Promise<void>): Promise<void> {
  const buttons = root instanceof HTMLButtonElement ? [root] : [...root.querySelectorAll('button')];
  for (const button of buttons) button.disabled = true;
  say('');
  try {
    await action();
  } catch (error) {
    say(problem(error), 'alert');
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

/** What went wrong, for a person: the SDK throws the backend's answer itself when it is not a 200. */
export function problem(error: unknown): string {
  if (error instanceof Response) return `The server answered ${error.status} ${error.statusText}: try again later.`;
  return error instanceof Error ? error.message : String(error);
}

export function show(...children: Child[]): void {
  const view = document.getElementById('view');
  if (view) view.replaceChildren(...children.filter((c): c is Node | string => c !== false && c !== undefined));
}

export function time(ms: number): string {
  return new Date(ms).toLocaleString();
}

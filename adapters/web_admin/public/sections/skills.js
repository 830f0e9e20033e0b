// Console section 'skills' (docs/console.md).
import { h } from '../ui.js';

export async function mount(container, api, t) {
  container.append(h('p', { class: 'muted' }, t('建设中', 'Coming soon')));
}

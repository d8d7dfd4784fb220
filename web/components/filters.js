// The seed and the top-k / top-p / min-p filters, as attributes, UI strings and
// number fields: shared by <softmax-sampler> and <softmax-generate> (importing
// one widget does not define the other).
import { ATTR, h, newId } from './base.js';

/** The sampler filters as attributes: shared with <softmax-generate>. */
export const FILTER_ATTRS = {
  seed: { ...ATTR.int(0, Number.MAX_SAFE_INTEGER), default: 42 },
  'top-k': { ...ATTR.int(0, 1e9), accepts: 'a whole number of 0 or more (0 = off)', default: 0 },
  'top-p': { ...ATTR.range(0, 1, { openLo: true }), accepts: 'a number above 0 up to 1 (1 = off)', default: 1 },
  'min-p': { ...ATTR.range(0, 1), accepts: 'a number from 0 to 1 (0 = off)', default: 0 },
};
/** Attribute name -> sampler option name. */
export const FILTER_KEY = { seed: 'seed', 'top-k': 'topK', 'top-p': 'topP', 'min-p': 'minP' };

export const FILTER_STRINGS = {
  seed: 'Seed',
  seedHelp: 'same seed, same draws',
  topK: 'Top-k',
  topKHelp: '0 = off',
  topP: 'Top-p',
  topPHelp: '1 = off',
  minP: 'Min-p',
  minPHelp: '0 = off',
  seedBad: 'Not a seed: type a whole number of 0 or more. Still using {v}.',
  topKBad: 'Top-k takes a whole number of 0 or more (0 = off). Still using {v}.',
  topPBad: 'Top-p takes a number above 0 up to 1 (1 = off). Still using {v}.',
  minPBad: 'Min-p takes a number from 0 to 1 (0 = off). Still using {v}.',
};

/**
 * What a number field does with what the reader types: a valid value goes to onValid; anything else
 * marks the field invalid and says below it what the field takes and which value is still in use
 * (rather than a red border alone). Returns the message element, to place after the input.
 */
export function checkedInput(input, parse, onValid, badMessage) {
  const err = h('p', { id: `${input.id || newId('num')}-err`, class: 'error field-error', 'aria-live': 'polite' });
  input.setAttribute('aria-describedby', `${input.getAttribute('aria-describedby') ?? ''} ${err.id}`.trim());
  input.addEventListener('input', () => {
    const v = parse(input.value);
    if (v === null) {
      input.setAttribute('aria-invalid', 'true');
      err.textContent = badMessage();
      return;
    }
    input.removeAttribute('aria-invalid');
    err.textContent = '';
    onValid(v);
  });
  // leaving the field puts the value in use back, so what the field shows is what is used
  input.addEventListener('blur', () => {
    if (input.getAttribute('aria-invalid') !== 'true') return;
    input.dispatchEvent(new CustomEvent('smx-restore'));
  });
  return err;
}

/** Seed / top-k / top-p / min-p number fields; onChange(key, value) on every valid edit. */
export function filterFields(host, opts, onChange, onCommit) {
  const numberField = (key, attrs, parse) => {
    const id = newId(key);
    const input = h('input', { id, type: 'number', class: 'num', part: 'input', 'aria-describedby': `${id}-help`, ...attrs });
    const err = checkedInput(input, parse, (v) => onChange(key, v), () => host.s(`${key}Bad`, { v: String(opts[key]) }));
    input.addEventListener('smx-restore', () => {
      input.value = String(opts[key]);
      input.removeAttribute('aria-invalid');
      err.textContent = '';
    });
    input.addEventListener('change', () => input.getAttribute('aria-invalid') !== 'true' && onCommit());
    // the hint sits in the label's line ("Top-k · 0 = off"): one line less per field on a phone
    return { input, el: h('div', { class: 'field small', part: 'field' }, h('label', { for: id }, host.s(key), ' ', h('span', { id: `${id}-help`, class: 'help-inline' }, host.s(`${key}Help`))), input, err) };
  };
  const intIn = (min) => (s) => (s !== '' && Number.isInteger(Number(s)) && Number(s) >= min && Number(s) <= Number.MAX_SAFE_INTEGER ? Number(s) : null);
  const inRange = (lo, hi, openLo) => (s) => {
    const v = Number(s);
    return s !== '' && Number.isFinite(v) && (openLo ? v > lo : v >= lo) && v <= hi ? v : null;
  };
  const fields = {
    seed: numberField('seed', { min: 0, step: 1 }, intIn(0)),
    topK: numberField('topK', { min: 0, step: 1 }, intIn(0)),
    topP: numberField('topP', { min: 0.01, max: 1, step: 0.05 }, inRange(0, 1, true)),
    minP: numberField('minP', { min: 0, max: 1, step: 0.05 }, inRange(0, 1, false)),
  };
  return {
    fields,
    sync(o) {
      for (const k of Object.keys(fields)) {
        fields[k].input.value = String(o[k]);
        fields[k].input.dispatchEvent(new CustomEvent('smx-restore'));
      }
    },
  };
}

/** The options handed to sm.createSampler (filters that are off are left out). */
export function samplerOptions({ seed, temperature, topK, topP, minP }) {
  const o = { seed, temperature };
  if (topK > 0) o.topK = topK;
  if (topP < 1) o.topP = topP;
  if (minP > 0) o.minP = minP;
  return o;
}


/** Turns a schema violation into one plain sentence naming the field and the rule (docs/architecture.md §5.7). */

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: Record<string, unknown>;
}

// A name that is not a plain identifier (a space, a dot, empty) is quoted, so the path stays one
// unambiguous token a client can read back.
function segment(name: string): string {
  if (/^\d+$/.test(name)) return `[${name}]`;
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function fieldName(err: AjvError, context: string): string {
  const path = err.instancePath
    .split('/')
    .slice(1) // a JSON pointer starts with "/"; an empty segment after it is a field named ""
    .map((p) => segment(p.replace(/~1/g, '/').replace(/~0/g, '~')))
    .join('')
    .replace(/^\./, '');
  if (err.keyword === 'required') {
    const missing = String(err.params.missingProperty ?? '');
    return path ? `${path}.${missing}` : missing;
  }
  return path || (context === 'querystring' ? 'query' : 'body');
}

function bounds(schema: Record<string, unknown> | undefined, low: string, high: string): [unknown, unknown] {
  return [schema?.[low], schema?.[high]];
}

function rule(err: AjvError): string {
  const s = err.parentSchema;
  switch (err.keyword) {
    case 'minimum':
    case 'maximum': {
      const [min, max] = bounds(s, 'minimum', 'maximum');
      if (min !== undefined && max !== undefined) return `must be between ${min} and ${max}`;
      return min !== undefined ? `must be at least ${min}` : `must be at most ${max}`;
    }
    case 'minLength':
    case 'maxLength': {
      const [min, max] = bounds(s, 'minLength', 'maxLength');
      if (min !== undefined && max !== undefined)
        return min === 1
          ? `must not be empty and at most ${max} characters long`
          : `must be ${min} to ${max} characters long`;
      return min !== undefined
        ? min === 1
          ? 'must not be empty'
          : `must be at least ${min} characters long`
        : `must be at most ${max} characters long`;
    }
    case 'minItems':
    case 'maxItems': {
      const [min, max] = bounds(s, 'minItems', 'maxItems');
      if (min !== undefined && min === max) return `must hold exactly ${min} items`;
      if (min !== undefined && max !== undefined) return `must hold ${min} to ${max} items`;
      return min !== undefined ? `must hold at least ${min} items` : `must hold at most ${max} items`;
    }
    case 'type': {
      const t =
        String(err.params.type)
          .split(',')
          .filter((x) => x !== 'null')[0] ?? 'value';
      const word =
        t === 'integer' ? 'a whole number' : t === 'array' ? 'a list' : t === 'object' ? 'an object' : `a ${t}`;
      return `must be ${word}`;
    }
    case 'pattern':
      return typeof s?.description === 'string'
        ? `must be in the form ${s.description}`
        : `must match the pattern ${err.params.pattern}`;
    case 'enum':
      return `must be one of ${(err.params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(err.params.allowedValue)}`;
    case 'anyOf':
    case 'oneOf':
      return 'has a value of the wrong kind';
    case 'format':
      return `must be a valid ${err.params.format}`;
    default:
      return err.message ?? 'is not valid';
  }
}

export function validationMessage(errors: AjvError[], context: string): string {
  // Of anyOf's branch errors, report the most specific one: the first that is not about null.
  const err = errors.find((e) => !(e.keyword === 'type' && e.params.type === 'null')) ?? errors[0];
  if (!err) return 'request is not valid';
  const field = fieldName(err, context);
  if (err.keyword === 'required') return `${field} is required`;
  return `${field} is invalid: ${rule(err)}`;
}

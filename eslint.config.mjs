import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

// Boundaries that bite: an app never imports another app (Nx forbids it outright), a
// service library only reaches shared libraries, and shared libraries only each other.
const depConstraints = [
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:platform', 'type:service', 'type:lib'],
  },
  { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:service', 'type:lib'] },
  { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'scope:contracts', onlyDependOnLibsWithTags: ['scope:contracts'] },
];

// A module-level lookup table written as an object literal answers `__proto__`, `constructor`, ... from
// Object.prototype: one such lookup keyed by a path parameter once crashed the platform.
const PROTOTYPE_LOOKUP_RULES = [
  {
    selector:
      "Program > VariableDeclaration > VariableDeclarator[init.type='ObjectExpression'] > Identifier TSTypeReference[typeName.name='Record'], ExportNamedDeclaration > VariableDeclaration > VariableDeclarator[init.type='ObjectExpression'] > Identifier TSTypeReference[typeName.name='Record']",
    message:
      'A lookup table as an object literal inherits Object.prototype (`__proto__`, `constructor`): use a Map, or ownValue() from @comanda/http.',
  },
];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  prettier,
  { ignores: ['**/dist', '**/node_modules', '.comanda', '.nx', 'coverage'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: true, allowCircularSelfDependency: false, depConstraints },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      // Typed config classes declare property types so decorator metadata drives conversion.
      '@typescript-eslint/no-inferrable-types': ['error', { ignoreProperties: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration once, through the typed config of @comanda/runtime.',
        },
        ...PROTOTYPE_LOOKUP_RULES,
      ],
    },
  },
  {
    // The typed config loader and the test harness are the only readers of process.env.
    files: [
      'libs/runtime/src/config/**/*.ts',
      'apps/cli/src/config/**/*.ts',
      'libs/testing/src/**/*.ts',
      '**/*.spec.ts',
      '**/*.e2e-spec.ts',
      'bench/**/*.ts',
      'test/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', ...PROTOTYPE_LOOKUP_RULES] },
  },
];

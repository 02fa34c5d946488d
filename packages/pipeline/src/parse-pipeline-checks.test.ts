/**
 * The second half of the table of broken pipelines (see parse-pipeline.test.ts): stages,
 * conditions, branch patterns, volumes, several problems at once, and problems reached through a
 * merge key. Positions counted by hand: line = index in
 * the fixture array + 1; the comment above a row names the character meant.
 */
import { HEAD, testRejections } from './parse-pipeline.test-support.js';
import type { RejectedRow } from './parse-pipeline.test-support.js';

const rows: RejectedRow[] = [
  {
    name: 'a misspelt step type, at the type value',
    // "    type: " is 10 characters, so every type value below starts at column 11.
    yaml: [...HEAD, '  build:', '    type: freestle', '    image: alpine'],
    issues: ['4:11 UNKNOWN_STEP_TYPE Unknown step type "freestle"; did you mean "freestyle"?'],
  },
  {
    name: 'a typed (marketplace) step with no catalog to find it in',
    yaml: [...HEAD, '  notify:', '    type: codefresh/slack:1.0.0', '    arguments:', '      x: 1'],
    issues: [
      '4:11 UNKNOWN_STEP_TYPE Step type "codefresh/slack" was not found; looked in: nowhere (no step-type catalog was given); to add it, put a "kind: step-type" document with that metadata.name in .sluice/step-types/ of the repository or in a directory given with --step-types',
    ],
  },
  {
    name: 'a stage that is not declared',
    // "    stage: " is 11 characters.
    yaml: [
      "version: '1.0'",
      'stages: [build, test]',
      'steps:',
      '  compile:',
      '    image: alpine',
      '    stage: biuld',
    ],
    issues: ['6:12 UNKNOWN_STAGE Stage "biuld" is not declared in "stages"; did you mean "build"?'],
  },
  {
    name: 'a stage without any "stages"',
    yaml: [...HEAD, '  compile:', '    image: alpine', '    stage: build'],
    issues: ['5:12 UNKNOWN_STAGE Step uses stage "build" but the pipeline declares no "stages"'],
  },
  {
    name: 'condition syntax errors, at the column inside the quoted scalar',
    // Line 8: the opening quote is column 23, "1 +" is 24-26, so the end is column 27.
    // Line 9: the quote is column 21, "a ==" is 22-25; the end of the expression is column 26.
    // Line 10: the quote is column 18, the second "==" starts at column 24.
    // Line 11: \" counts two characters in the file but one in the value: "=" is column 33.
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    when:',
      '      condition:',
      '        all:',
      "          incomplete: '1 +'",
      '          dangling: "a == "',
      "          twice: 'a == == b'",
      '          escaped: "\\"main\\" == = 1"',
    ],
    issues: [
      '8:27 EXPRESSION Unexpected end of expression',
      '9:26 EXPRESSION Unexpected end of expression',
      '10:24 EXPRESSION Unexpected "=="',
      '11:33 EXPRESSION Unexpected "="; did you mean "=="?',
    ],
  },
  {
    name: 'a condition error on the second line of a block scalar',
    // Line 9 is "            steps.build.result ==": 12 spaces and 21 characters end at 33.
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    when:',
      '      condition:',
      '        any:',
      '          both: |',
      "            steps.build.result == 'success' &&",
      '            steps.build.result ==',
    ],
    issues: ['10:34 EXPRESSION Unexpected end of expression'],
  },
  {
    name: 'a condition naming an unknown step',
    // Line 10: "built: " ends at column 17. Line 11: in the file, the value starts at column 21
    // and each \" before "steps" adds a character: "steps" starts at column 55.
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '  test:',
      '    image: alpine',
      '    when:',
      '      condition:',
      '        all:',
      "          built: steps.bulid.result == 'success'",
      '          escaped: "\\"${{CF_BRANCH}}\\" == \\"main\\" && steps.bulid.result == \\"success\\""',
      "          dynamic: steps.${{NAME}}.result == 'success'",
      "          partly: steps.deploy_${{ENV}}.result == 'success'",
    ],
    issues: [
      '10:18 UNKNOWN_STEP Condition refers to unknown step "bulid"; did you mean "build"?',
      '11:55 UNKNOWN_STEP Condition refers to unknown step "bulid"; did you mean "build"?',
    ],
  },
  {
    name: 'an invalid branch regex',
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    when:',
      '      branch:',
      '        only:',
      '          - main',
      '          - /[/',
    ],
    issues: [
      '9:13 INVALID_VALUE Branch pattern "/[/" is not a valid regular expression: missing closing ]: `[`',
    ],
  },
  {
    name: 'cmd together with commands or shell, at the key that conflicts',
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    commands: [make]',
      '    shell: bash',
      '    cmd: [--help]',
    ],
    issues: [
      '6:5 INVALID_VALUE "shell" runs "commands"; a step with "cmd" cannot set it',
      '7:5 INVALID_VALUE A step takes "commands" or "cmd", not both',
    ],
  },
  {
    name: 'volumes from outside /codefresh/volume, including through ".."',
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    volumes:',
      '      - /var/run/docker.sock:/var/run/docker.sock',
      '      - /codefresh/volume/../etc:/host-etc',
      '      - /codefresh/volume/cache:/cache',
      '      - cache',
    ],
    issues: [
      '6:9 INVALID_VALUE Volume source "/var/run/docker.sock" must be under /codefresh/volume',
      '7:9 INVALID_VALUE Volume source "/codefresh/volume/../etc" must be under /codefresh/volume',
      '9:9 INVALID_VALUE Volume "cache" must be written SOURCE:/absolute/target',
    ],
  },
  {
    name: 'several problems in one file, all reported, in line order',
    yaml: [
      "version: '1.0'",
      'stages: [build]',
      'steps:',
      '  clone:',
      '    type: git-clone',
      '    repo: acme/app',
      '    depth: shallow',
      '  build:',
      '    image: alpine',
      '    stage: biuld',
      '    comands: [make]',
      '    when:',
      '      condition:',
      '        all:',
      "          ok: steps.clon.result == 'success'",
      '  deploy:',
      '    type: launch-composition',
      '    composition: x',
    ],
    issues: [
      '7:12 INVALID_VALUE "depth" must be a number, got the string "shallow"',
      '10:12 UNKNOWN_STAGE Stage "biuld" is not declared in "stages"; did you mean "build"?',
      '11:5 UNKNOWN_FIELD Unknown field "comands" in freestyle step "build" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"?',
      '15:15 UNKNOWN_STEP Condition refers to unknown step "clon"; did you mean "clone"?',
      '17:11 UNSUPPORTED Step type "launch-composition" is not run by Sluice: environments that outlive the build are not kept; the build stops before its first step',
    ],
  },
  {
    name: 'problems brought in by a merge key, at the anchored fields',
    // Line 5: six spaces, "shell" (7-11), ": ", so "zsh" starts at column 14.
    yaml: [
      "version: '1.0'",
      'indicators:',
      '  - defaults: &defaults',
      '      image: alpine',
      '      shell: zsh',
      '      comands: [make]',
      'steps:',
      '  build:',
      '    <<: *defaults',
      '    title: Build',
    ],
    issues: [
      '5:14 INVALID_VALUE "shell" must be one of "sh", "bash", got the string "zsh"; did you mean "sh"?',
      '6:7 UNKNOWN_FIELD Unknown field "comands" in freestyle step "build" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"?',
    ],
  },
  {
    name: 'an empty "when"',
    yaml: [...HEAD, '  build:', '    image: alpine', '    when:'],
    issues: ['5:10 INVALID_VALUE "when" must be a map, got nothing'],
  },
];

testRejections(rows);

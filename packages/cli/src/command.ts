import { Command, Option } from "commander";

/**
 * Commander checks required options before it looks for unknown ones, so a
 * mistyped `--acount` would be reported as "required option '--account' not
 * specified". Here required options are plain options checked in a
 * `preAction` hook, which commander runs after rejecting unknown options:
 * the typo is named for what it is.
 */
export class FdxCommand extends Command {
  readonly #required: Option[] = [];

  override createCommand(name?: string): FdxCommand {
    return new FdxCommand(name);
  }

  /** An option the action cannot do without, checked after unknown options (see the class comment). */
  needs(flags: string, description: string): this {
    const option = new Option(flags, `${description} (required)`);
    this.#required.push(option);
    return this.addOption(option);
  }

  /** Fails with commander's own message when a required option is missing. */
  checkRequired(): void {
    for (const option of this.#required) {
      if (this.getOptionValue(option.attributeName()) === undefined) {
        this.error(`error: required option '${option.flags}' not specified`, { code: "commander.missingMandatoryOptionValue" });
      }
    }
  }
}

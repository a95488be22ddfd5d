/**
 * A step whose failure must not fail the work it follows: a merge of a table whose rows are already
 * stored (reads of them only cost more until a later merge). Its error is kept for whoever reports on
 * that work (the valuation pass logs it, docs/POSITIONS.md "The valuation pass").
 */
export class KeptFailure {
  private error: unknown;

  /** Runs `step`; false, with its error kept for `take` (the latest replacing any earlier), when it threw. */
  async attempt(step: () => Promise<void>): Promise<boolean> {
    try {
      await step();
      return true;
    } catch (error) {
      this.error = error;
      return false;
    }
  }

  /** The error kept since the previous call, if a step failed. */
  take(): unknown {
    const error = this.error;
    this.error = undefined;
    return error;
  }
}

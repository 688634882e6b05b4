/**
 * Answers leave at the end of the event-loop turn in which they were made, together, as Redis sends
 * its replies before it sleeps. A turn takes in every request whose bytes have arrived (the poll
 * phase); without this, each answer is written the moment its handler finishes, between the reads of
 * the next requests, so a busy client is woken once per answer. Held until the check phase
 * (`setImmediate`), the answers of one turn reach it in one burst. On the lookup benchmark (50
 * connections on loopback) that halved the kernel time per request and raised the request rate by
 * 15-60 % (docs/performance.md); an idle server pays one turn, microseconds.
 */
/** Something released at the end of the turn: an answer written, a promise resolved. */
export interface TurnTask {
  /** Must not throw (it would end the process): the lookup's lane catches what writing its answer throws. */
  release(): void;
}

let tasks: TurnTask[] = [];

function releaseAll(): void {
  const due = tasks;
  tasks = [];
  for (let i = 0; i < due.length; i++) due[i]!.release();
}

/**
 * Releases `task` in the check phase of the current event-loop turn, with the others of the turn, in
 * the order given; one timer for all. The lookup's lane writes its answers so (data-api/lane.ts): an
 * answer made without a promise is released without one (docs/performance.md "Lookup, seventh pass").
 */
export function atEndOfTurn(task: TurnTask): void {
  if (tasks.length === 0) setImmediate(releaseAll);
  tasks.push(task);
}

let turnEnd: Promise<void> | null = null;

/** Resolves in the check phase of the current event-loop turn; one promise for all who wait on it. */
export function endOfTurn(): Promise<void> {
  return (turnEnd ??= new Promise((resolve) =>
    atEndOfTurn({
      release() {
        turnEnd = null;
        resolve();
      },
    }),
  ));
}

/**
 * A fetch handler whose answers are released at the end of the turn.
 * @example
 * createServer(toNodeHandler(answerAtEndOfTurn(app.fetch)));
 */
export function answerAtEndOfTurn(fetch: (request: Request) => Response | Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetch(request);
    await endOfTurn();
    return response;
  };
}

/**
 * A server-sent events response whose writer sees the reader's pace (docs/webhooks.md "Listen
 * sessions: the stream"). Hand-rolled over a ReadableStream rather than h3's EventStream because the
 * hub must know, before it sends a delivery, whether the client is keeping up: the stream's queue is
 * bounded in bytes, and once node:http's socket buffer is full srvx stops reading it (it waits for
 * `drain`), so `desiredSize` drops to 0 and stays there while the client reads nothing. The format
 * itself is trivial here: one event name and one line of JSON (JSON has no raw newlines).
 */
export class ListenEventStream {
  readonly response: Response;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #congestedSince: number | null = null;
  readonly #onClose: Array<() => void> = [];
  readonly #encoder = new TextEncoder();

  /** `highWaterMark`: bytes queued past the socket before the stream counts as congested. */
  constructor(headers: Record<string, string>, highWaterMark = 64 * 1024) {
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        // The client went away (srvx cancels the reader when the socket closes).
        cancel: () => this.#finish(),
      },
      { highWaterMark, size: (chunk) => chunk.byteLength },
    );
    this.response = new Response(body, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // Nothing on the way may cache, transform or buffer the stream: proxies (nginx honours
        // X-Accel-Buffering) would otherwise hold deliveries back until a buffer fills.
        "cache-control": "no-cache, no-store, no-transform",
        "x-accel-buffering": "no",
        ...headers,
      },
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** True while the queue is full: the client (or the network) is not taking what was sent. */
  get congested(): boolean {
    return !this.#closed && (this.#controller.desiredSize ?? 0) <= 0;
  }

  /** How long (ms of real time, at `now` = performance.now()) the stream has been congested, 0 if not. */
  congestedFor(now: number): number {
    if (!this.congested) {
      this.#congestedSince = null;
      return 0;
    }
    this.#congestedSince ??= now;
    return now - this.#congestedSince;
  }

  /** Sends one event; false when the stream is closed. */
  send(event: string, data: unknown, id?: string): boolean {
    return this.#write(`${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line (`: ping`): keeps proxies and the client's idle timer from closing a quiet stream. */
  comment(text: string): boolean {
    return this.#write(`: ${text}\n\n`);
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    try {
      this.#controller.enqueue(this.#encoder.encode(text));
      return true;
    } catch {
      this.#finish();
      return false;
    }
  }

  /** Ends the response (what was queued is still sent). */
  close(): void {
    if (this.#closed) return;
    try {
      this.#controller.close();
    } catch {
      // already errored or cancelled
    }
    this.#finish();
  }

  onClose(listener: () => void): void {
    if (this.#closed) queueMicrotask(listener);
    else this.#onClose.push(listener);
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#onClose.splice(0)) listener();
  }
}

package dev.cairn.broker.cli;

import dev.cairn.broker.config.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;

/** Runs one admin command body, turning failures into a one-line message on stderr and an exit code. */
final class AdminCall {
    /** A command body: prints its result and returns an exit code. */
    interface Body {
        int run() throws IOException;
    }

    private AdminCall() {
    }

    static int run(PrintWriter err, Body body) {
        try {
            return body.run();
        } catch (ConfigException e) {
            err.println("cairn: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("cairn: " + e.getMessage());
            return AdminOptions.EXIT_UNREACHABLE;
        }
    }
}

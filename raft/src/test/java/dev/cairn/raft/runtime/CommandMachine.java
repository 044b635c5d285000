package dev.cairn.raft.runtime;

import java.util.List;

/** A test state machine whose state is the list of commands applied to it. */
interface CommandMachine extends GroupStateMachine {

    /** The commands applied so far (the new leaders' no-ops left out). */
    List<String> commands();
}

package dev.cairn.broker.raft;

import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;

/**
 * The life-cycle states Ratis checks on a state machine. Ratis installs a snapshot from the leader only on a
 * paused state machine: it calls {@code pause()}, swaps the snapshot directory, and asserts PAUSED before calling
 * {@code reinitialize()}. {@link BaseStateMachine} leaves all of this to subclasses.
 */
final class StateMachineLifecycle {
    private StateMachineLifecycle() {
    }

    /** After initialize: NEW -> STARTING -> RUNNING. */
    static void started(BaseStateMachine machine) {
        LifeCycle lifeCycle = machine.getLifeCycle();
        if (lifeCycle.compareAndTransition(LifeCycle.State.NEW, LifeCycle.State.STARTING)) {
            lifeCycle.transition(LifeCycle.State.RUNNING);
        }
    }

    /** RUNNING -> PAUSING -> PAUSED; a machine in any other state is left as it is. */
    static void pause(BaseStateMachine machine) {
        LifeCycle lifeCycle = machine.getLifeCycle();
        if (lifeCycle.compareAndTransition(LifeCycle.State.RUNNING, LifeCycle.State.PAUSING)) {
            lifeCycle.transition(LifeCycle.State.PAUSED);
        }
    }

    /** After reinitialize: PAUSED -> STARTING -> RUNNING. */
    static void resumed(BaseStateMachine machine) {
        LifeCycle lifeCycle = machine.getLifeCycle();
        if (lifeCycle.compareAndTransition(LifeCycle.State.PAUSED, LifeCycle.State.STARTING)) {
            lifeCycle.transition(LifeCycle.State.RUNNING);
        }
    }
}

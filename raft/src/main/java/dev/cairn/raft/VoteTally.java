package dev.cairn.raft;

import java.util.HashMap;
import java.util.Map;

/** The answers a (pre-)candidate has had in its round of votes, its own included; the first per voter counts. */
final class VoteTally {

    enum Outcome { PENDING, WON, LOST }

    private final Map<Integer, Boolean> votes = new HashMap<>();

    void clear() {
        votes.clear();
    }

    Outcome record(int voter, boolean granted, int majority) {
        votes.putIfAbsent(voter, granted);
        long yes = votes.values().stream().filter(Boolean::booleanValue).count();
        if (yes >= majority) {
            return Outcome.WON;
        }
        return votes.size() - yes >= majority ? Outcome.LOST : Outcome.PENDING;
    }
}

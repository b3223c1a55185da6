// The sandbox emulator arrives with its own issue; this entry keeps the workspace building.
export {};

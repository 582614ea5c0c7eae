replay

# empty seed

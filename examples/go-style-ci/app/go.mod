module example.com/sluicectl

go 1.22
